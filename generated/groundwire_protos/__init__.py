"""Python stubs generated from protos/ by `make generate`; never edit by hand."""
