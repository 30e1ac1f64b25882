"""Integration tests run on whichever backend LAMINA_BACKEND selects (default: jax)."""
