"""What the clients' methods return beyond one result: batches, splits, streams, records."""
