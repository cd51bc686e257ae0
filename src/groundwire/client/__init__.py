"""GroundingClient, AsyncGroundingClient: settings, endpoints, credentials, interceptors."""
