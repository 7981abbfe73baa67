"""KnotworkRetriever and the memory tools driven through LangChain's Runnable and tool interfaces, on both backends;
a fake chat model (LangChain's own) stands in for the LLM that would call the tools."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel  # noqa: E402
from langchain_core.messages import AIMessage, ToolMessage  # noqa: E402
from langchain_core.retrievers import BaseRetriever  # noqa: E402
from langchain_core.tools import BaseTool  # noqa: E402

import knotwork  # noqa: E402
from knotwork.integrations.langchain import KnotworkRetriever, memory_tools  # noqa: E402


@pytest.fixture
def shop(mem: knotwork.Knotwork) -> dict[str, str]:
    ids = {
        "db": mem.add("The staging database is PostgreSQL 16 on host db-2", workspace="shop", tags={"env": "staging"},
                      category="fact").id,
        "deploy": mem.add("Deploys to production happen on Tuesday mornings", workspace="shop").id,
        "other": mem.add("The staging database of the blog is MySQL", workspace="blog").id,
        "global": mem.add("Every service logs in JSON", workspace=None).id,
    }
    return ids


def test_the_retriever_returns_documents_with_the_memory_in_metadata(mem: knotwork.Knotwork, shop: dict[str, str]) -> None:
    retriever = KnotworkRetriever(mem=mem, workspace="shop", k=2)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("which database does staging use?")
    assert all(isinstance(d, Document) for d in docs) and 1 <= len(docs) <= 2
    top = docs[0]
    m = mem.get(shop["db"])
    assert top.page_content == m.content and top.id == m.id
    assert top.metadata["id"] == m.id and top.metadata["workspace"] == "shop" and top.metadata["tags"] == {"env": "staging"}
    assert top.metadata["category"] == "fact" and top.metadata["created_at"].startswith(m.created_at.date().isoformat())
    assert 0 < top.metadata["score"] <= 1 and top.metadata["score"] >= docs[-1].metadata["score"]
    assert shop["other"] not in {d.metadata["id"] for d in docs}  # another workspace


def test_the_retriever_scopes_by_workspace_tags_and_k_and_runs_async(mem: knotwork.Knotwork, shop: dict[str, str]) -> None:
    blog = KnotworkRetriever(mem=mem, workspace="blog", k=5)
    assert [d.metadata["id"] for d in blog.invoke("staging database")][0] == shop["other"]
    tagged = KnotworkRetriever(mem=mem, workspace="shop", k=5, tags={"env": "staging"})
    assert [d.metadata["id"] for d in tagged.invoke("database")] == [shop["db"]]
    five = KnotworkRetriever(mem=mem, workspace="shop", k=5)
    assert len(five.invoke("staging database and production deploys")) >= 2
    assert len(five.invoke("staging database and production deploys", k=1)) == 1  # k for one call
    batch = asyncio.run(KnotworkRetriever(mem=mem, workspace="shop", k=1).abatch(["production deploys", "staging database"]))
    assert [[d.metadata["id"] for d in docs] for docs in batch] == [[shop["deploy"]], [shop["db"]]]


def test_the_retriever_refuses_a_bad_query_with_knotworks_message(mem: knotwork.Knotwork, shop: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="query"):
        KnotworkRetriever(mem=mem, workspace="shop").invoke("   ")
    with pytest.raises(ValueError, match="limit"):
        KnotworkRetriever(mem=mem, workspace="shop", k=0).invoke("database")


def test_the_tools_remember_recall_and_forget(mem: knotwork.Knotwork) -> None:
    tools = memory_tools(mem, workspace="shop")
    assert all(isinstance(t, BaseTool) for t in tools)
    remember, recall, forget = tools
    answer = remember.invoke({"content": "Invoices are archived after seven years", "tags": {"team": "finance"}})
    (m,) = mem.list(workspace="shop")
    assert answer.startswith("✓ Stored") and m.id in answer and m.tags == {"team": "finance"}
    found = recall.invoke({"query": "how long are invoices kept?"})
    assert found.splitlines()[0].split()[0] == mem.short_ids([m.id])[m.id]
    assert m.id in forget.invoke({"id": m.id}) and len(mem.list(workspace="shop")) == 0
    assert asyncio.run(recall.ainvoke({"query": "invoices"})) == "No matching memories."


def test_a_fake_chat_model_drives_the_tools_through_tool_calls(mem: knotwork.Knotwork) -> None:
    tools = {t.name: t for t in memory_tools(mem, workspace="shop")}
    model = FakeMessagesListChatModel(responses=[
        AIMessage("", tool_calls=[{"name": "remember_memory", "args": {"content": "The on-call rota changes on Mondays"}, "id": "c1"}]),
        AIMessage("", tool_calls=[{"name": "recall_memory", "args": {"query": "when does the rota change?"}, "id": "c2"}]),
    ])
    results = []
    for _ in range(2):
        call = model.invoke("go").tool_calls[0]
        results.append(tools[call["name"]].invoke({**call, "type": "tool_call"}))
    assert all(isinstance(r, ToolMessage) and r.status == "success" for r in results)
    assert "on-call rota changes on Mondays" in results[1].content


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("remember_memory", {"content": "x" * 70_000}, "content: is 70000 bytes in UTF-8; the limit is 65536 bytes"),
        ("remember_memory", {"content": "fine", "tags": {"bad key!": "v"}}, "tags: key 'bad key!' is not valid"),
        ("recall_memory", {"query": ""}, "query"),
        ("forget_memory", {"id": "0123456789ABCDEFGHJKMNPQRS"}, "no memory matches id"),
    ],
)
def test_bad_input_is_a_tool_error_with_knotworks_message_and_writes_nothing(
    mem: knotwork.Knotwork, name: str, args: dict, message: str
) -> None:
    tools = {t.name: t for t in memory_tools(mem, workspace="shop")}
    out = tools[name].invoke({"type": "tool_call", "name": name, "args": args, "id": "c1"})
    assert isinstance(out, ToolMessage) and out.status == "error" and message in out.content
    assert len(mem.list(workspace="*", agent_id="*")) == 0


def test_forget_does_not_reach_outside_its_workspace(mem: knotwork.Knotwork) -> None:
    other = mem.add("Belongs to the blog", workspace="blog")
    forget = memory_tools(mem, workspace="shop")[2]
    out = forget.invoke({"type": "tool_call", "name": "forget_memory", "args": {"id": other.id}, "id": "c1"})
    assert out.status == "error" and mem.get(other.id).id == other.id
