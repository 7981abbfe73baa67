"""Word lists the extraction rules use: well-known technology names, words
that are capitalised only because they start a sentence, and relatives."""

from __future__ import annotations

#: Lower-case name -> how it is usually written. Only names that are rarely
#: ordinary English words (so "go", "rust" the verb, "swift" are left out).
TECH = {
    name.lower(): name
    for name in """
    Python JavaScript TypeScript Java Kotlin Scala Ruby Rails PHP Perl Haskell Elixir Erlang Clojure Rust Golang C++ C#
    Django Flask FastAPI Starlette Pydantic SQLAlchemy Alembic Celery pytest unittest mypy ruff black flake8 pylint
    numpy pandas scipy PyTorch TensorFlow Keras scikit-learn Jupyter matplotlib polars
    React Vue Svelte Angular Next.js Nuxt Remix Vite webpack esbuild Babel Jest Vitest Mocha Cypress Playwright Storybook
    Node.js Deno Bun npm pnpm Yarn Express NestJS Tailwind Bootstrap jQuery Redux Zustand GraphQL gRPC REST tRPC
    Redis Memcached PostgreSQL Postgres MySQL MariaDB SQLite MongoDB Cassandra DynamoDB Elasticsearch OpenSearch
    ClickHouse Snowflake BigQuery Kafka RabbitMQ NATS ZeroMQ Supabase Firebase Prisma Drizzle Sequelize
    Docker Kubernetes k8s Helm Terraform Ansible Pulumi Nginx Apache Caddy Traefik Envoy Istio Consul Vault
    AWS GCP Azure Heroku Vercel Netlify Cloudflare DigitalOcean Fly.io Lambda S3 EC2 ECS EKS
    Git GitHub GitLab Bitbucket Jenkins CircleCI Travis Buildkite ArgoCD Sentry Datadog Grafana Prometheus
    Linux Ubuntu Debian Fedora macOS Windows Android iOS Bash Zsh fish tmux Vim Neovim Emacs VSCode IntelliJ PyCharm
    Slack Discord Jira Confluence Notion Linear Figma Trello Asana Zoom
    OpenAI Anthropic ChatGPT Claude Ollama vLLM LangChain LlamaIndex HuggingFace ONNX
    Stripe Twilio Auth0 Okta OAuth JWT OpenTelemetry Poetry pip uv conda virtualenv Homebrew
    Spotify Netflix YouTube Instagram Twitter Facebook WhatsApp Telegram Airbnb Uber Amazon Google Apple Microsoft
    iPhone iPad MacBook Kindle Tesla Toyota Honda
    """.split()
}

#: A technology's short name -> the name it stands for (lower case, as written). One list for the whole
#: project: consolidation reads "Postgres" and "PostgreSQL" as one value (``hygiene.wording``), and the graph
#: resolves the two to one entity, the later spelling an alias of the earlier (``knowledge.resolve.same_names``).
#: Only abbreviations no other thing commonly goes by.
SHORT_NAMES = {"postgres": "postgresql", "k8s": "kubernetes", "js": "javascript", "ts": "typescript", "golang": "go",
               "readthedocs": "read the docs", "read-the-docs": "read the docs"}

#: Technology names of several words, one of which is a common word or an abbreviation ("VS Code").
MULTIWORD_TECH = {
    name.lower(): name
    for name in (
        "VS Code", "Visual Studio Code", "GitHub Actions", "GitLab CI", "Cloud Run", "Cloud Functions", "App Engine",
        "Google Cloud", "Azure DevOps", "Docker Compose", "Apple Music", "React Native", "Sublime Text",
        "Swift Package Manager", "Create React App", "Argo CD", "New Relic", "Cloudflare Pages", "Cloudflare Workers",
        "GitHub Pages", "Hugging Face", "Google Sheets", "Google Docs", "Microsoft Teams",
    )
}

#: Capitalised words that are not names when they start a sentence (and
#: some that are never names on their own).
COMMON = frozenset(
    """
    a an the i we you he she it they me my our your his her its their this that these those there here
    yesterday today tonight tomorrow also then so but and or if when after before since because please remember
    note let let's can could would should will do does did is are was were be been hi hello hey thanks thank yes no
    ok okay sure great good nice actually just maybe what why how who where which use using used don't never always
    make add run fix set keep check see try move update remove delete change avoid prefer all every each some any
    last next first new old now still only even once again both either neither such many much more most other another
    in on at to for from with by of as into over under about via per not instead rather back
    monday tuesday wednesday thursday friday saturday sunday january february march april may june july august
    september october november december mr mrs ms dr
    todo fyi asap etc eg ie vs tl;dr
    """.split()
)

#: Day names, singular and plural: "We deploy on Fridays" says when, never the platform, tool or place.
DAYS = frozenset(d + s for d in "monday tuesday wednesday thursday friday saturday sunday weekday weekend".split()
                 for s in ("", "s"))

#: First words of an order or a rule ("NEVER use X", "Install HTTPX using pip:"): at a sentence's start they are
#: not its subject, whatever their case (the sentence gate's order cue lists the same words).
ORDER_WORDS = frozenset(
    """
    never always must should please don't dont do use install create add run keep try see update include write
    check set fix remove drop allow consider prefer review format follow avoid remember ensure make
    """.split()
)

#: Upper-case abbreviations that name no particular thing.
GENERIC_ACRONYMS = frozenset(
    """
    API APIS CI CD PR PRS MR URL URI ID IDS UI UX OK TODO FYI ASAP AM PM DB SDK CLI CPU GPU RAM SSD HDD OS IO
    HTTP HTTPS TCP UDP IP DNS SQL CSV TSV PDF PNG JPG GIF HTML CSS XML YAML YML TOML JSON MD TXT ENV
    ETA EOD EOW FAQ TTL ETL SLA SLO KPI OKR MVP POC PII SSO MFA CRUD ORM LLM AI ML QA PM PO CEO CTO VP HR IT TV USA UK EU US ASAP BTW IMO IMHO LOL TBD WIP RFC ADR N/A
    VM VMS VPN TLS SSL SSH SRE CDN SMS OTP PCI README
    """.split()
)

#: "my sister Emma", "Emma is my sister": relation words that make a person fact.
RELATIVES = frozenset(
    """
    sister brother mother mom mum father dad wife husband partner son daughter boss manager friend colleague
    coworker roommate cousin aunt uncle grandma grandmother grandpa grandfather girlfriend boyfriend fiance fiancee
    doctor dentist therapist landlord neighbor neighbour mentor teacher coach
    """.split()
)

#: Words a noun phrase object stops at.
STOP_AFTER = frozenset(
    """
    to for over than because since when while and but or so if as at in on by with from about instead rather of
    which that who where after before during until unless though although,
    very much best most really too so lots
    """.split()
)

#: Places written in lower case in chat ("i live in utah", "i lived in san diego"): the states of the United
#: States, large cities (and their common short names) and countries. Only names that are rarely ordinary
#: English words ("georgia", "jersey", "turkey", "phoenix", "la" are left out); a capitalised place is
#: found by its capitals.
PLACES = frozenset(
    name.replace("_", " ")
    for name in """
    alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii idaho illinois indiana
    iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota mississippi missouri montana
    nebraska nevada new_hampshire new_mexico new_york north_carolina north_dakota ohio oklahoma oregon
    pennsylvania rhode_island south_carolina south_dakota tennessee texas utah vermont virginia washington
    west_virginia wisconsin wyoming
    nyc new_york_city los_angeles san_francisco san_diego san_jose san_antonio las_vegas vegas seattle portland
    boston chicago houston dallas austin denver atlanta miami orlando tampa nashville memphis detroit
    philadelphia philly pittsburgh baltimore minneapolis milwaukee cleveland cincinnati columbus indianapolis
    sacramento oakland brooklyn manhattan salt_lake salt_lake_city albuquerque tucson honolulu anchorage
    boise omaha kansas_city st_louis new_orleans raleigh richmond
    canada mexico brazil argentina peru colombia england scotland wales ireland france germany spain
    portugal italy netherlands belgium switzerland austria sweden norway denmark finland poland greece
    russia ukraine egypt nigeria kenya india pakistan china japan korea vietnam thailand indonesia philippines
    australia new_zealand
    london paris berlin madrid barcelona lisbon rome milan amsterdam dublin edinburgh glasgow manchester
    toronto vancouver montreal sydney melbourne tokyo seoul beijing shanghai mumbai delhi bangalore singapore
    """.split()
)
