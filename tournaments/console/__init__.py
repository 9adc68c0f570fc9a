"""The organizer's console: forms that create shows, brackets and matches and
run a show's steps in the browser. Every form calls one service; the service
decides, and its own words (RuleError) are shown beside the field."""
