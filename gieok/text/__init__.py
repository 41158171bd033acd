"""Text components: Korean morphology, keyword terms, sentences, token counts."""
