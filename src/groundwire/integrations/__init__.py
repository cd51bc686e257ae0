"""groundwire inside other tools: Beam, BigQuery, Spark, LangChain, web, pytest."""
