"""Higher or Lower (slug ``higher-lower``): an open auction, then 24 turns of
guessing whether the Dealer's secret card is higher or lower."""
