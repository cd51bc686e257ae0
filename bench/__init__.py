"""`make bench`: groundwire measured side by side with Google's official clients, in one run."""
