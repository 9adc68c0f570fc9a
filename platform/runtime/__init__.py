"""What every process shares, below every other package: the embedded mode's
background threads, the JSON logs with their context, the seal (an HMAC
of the secret key) on what the site keeps outside its memory, and the folds
kept by stream version (``kept``: the match states', the shows' and brackets')."""
