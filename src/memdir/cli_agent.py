"""Agent-facing CLI commands: ``serve``, ``tools``, ``prompt``, ``write`` (registered on ``cli``)."""
