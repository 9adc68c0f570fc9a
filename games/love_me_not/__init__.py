"""Love Me Not (``love-me-not``): two players, five simultaneous turns."""
