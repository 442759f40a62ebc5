"""The examples the documents quote word for word: run as scripts by test_examples.py, or
imported by their tests (otel_tracing by test_otel_recipe.py)."""
