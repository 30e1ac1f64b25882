"""Training (the `Trainer` half of `Model`) and its data layer."""
