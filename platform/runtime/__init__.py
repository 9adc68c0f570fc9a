"""What every process shares, below every other package: the embedded mode's
background threads and the JSON logs with their context."""
