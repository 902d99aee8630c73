"""The Slack surface: a bolt app (HTTP mode inside the FastAPI app, or Socket Mode) over the core."""
