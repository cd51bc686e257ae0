"""LangChain: the Runnable (`runnable`, needs langchain-core) and documents as facts (pure)."""
