// Bundles src/main.ts (with cytoscape and diff from node_modules) and copies the page and its styles
// into the Python package's static folder, which `knotwork serve` answers at / and /ui/static/.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const out = "../src/knotwork/adapters/http/static";
mkdirSync(out, { recursive: true });
await build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2020",
  outfile: `${out}/app.js`,
  legalComments: "linked",
  logLevel: "warning",
});
copyFileSync("src/index.html", `${out}/index.html`);
copyFileSync("src/app.css", `${out}/app.css`);
copyFileSync("src/favicon.svg", `${out}/favicon.svg`);
console.log(`built ${out}/app.js, index.html, app.css, favicon.svg`);
