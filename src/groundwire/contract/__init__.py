"""The contract every layer shares, with no I/O: specs, requests, results, errors, offsets."""
