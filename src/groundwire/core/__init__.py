"""The pure core: request checks, offsets, errors and retry timing, shared by every transport."""
