"""Every bound on a number or a list that sizes the work a request makes: one
definition, read by the console forms, the API serializers and the services
(engines) alike, so that no path accepts what another refuses and no post
makes the server loop, allocate or wait without end."""

MAX_PK = 2**63 - 1  # a larger id names nothing (and is no database integer)
MAX_NAME = 150  # an entrant's, a seat's or a username
MAX_ENTRANTS = 64  # of a show or a bracket, bots included
MAX_ROUNDS = MAX_ENTRANTS  # planned round titles; a Swiss bracket's rounds
MAX_CANDIDATES = MAX_ENTRANTS  # elimination candidates in one round
MAX_FIRST_TO = 99  # bouts a side must win to take a series
MAX_SPECTATOR_DELAY_S = 7 * 24 * 3600
MAX_STEP_DEADLINE_S = 7 * 24 * 3600  # a show step's deadline
MAX_EXTEND_S = 7 * 24 * 3600  # one extension of a show step's deadline
MAX_ADD_TIME_S = 24 * 3600  # a moderator adds at most a day to a clock at a time
MAX_CHECK_IN_S = 7 * 24 * 3600
MAX_READY_CHECK_S = 24 * 3600
MAX_VERSION = MAX_PK  # an event version named in a form or a body
