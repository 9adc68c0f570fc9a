"""Shows and brackets are folded incrementally from their records: the
result always equals a full fold of the stream, and a fold that is not the
record's (rolled back, written by other code) is never used."""

import json
import pickle
import random
import threading

import pytest
from django.contrib.auth.models import User
from django.db import transaction

from eventlog.store import read
from games.core.adapt import as_game_event
from games.core.protocol import RuleError
from tournaments import autopilot, readmodels, shows
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.bracket_fold import fold_bracket
from tournaments.models import BracketRecord, ShowRecord

from .test_bracket_services import play_all
from .test_show_services import ORG, T0, show


def full_fold(stream):
    return shows.fold(as_game_event(r) for r in read(stream))


def grant(stream, entrant="ana"):
    cmd = {
        "type": "grant_item",
        "entrant": entrant,
        "item": "plus_one",
        "scope": "any",
        "given_by": "olga",
    }
    return ss.command(stream, cmd, ORG, now=T0)


@pytest.mark.django_db
def test_incremental_show_fold_equals_a_full_fold():
    rng = random.Random(5)
    stream = show(rng=rng)
    autopilot.run(stream, rng, start=T0)
    state, version, _ = ss.load(stream)
    assert state.champion is not None and version == len(read(stream))
    assert state == full_fold(stream)
    # another process: no cached fold, the record's stored one plus the events after it
    readmodels._cache.clear()
    kept_at = readmodels._thaw(stream, ShowRecord.objects.get(stream=stream).folded)[0]
    assert kept_at < version
    assert ss.load(stream)[0] == full_fold(stream)
    # no usable stored fold either (another shape of the classes): folded from the start
    readmodels._cache.clear()
    ShowRecord.objects.filter(stream=stream).update(
        folded=json.dumps(["another shape", version, "not a show"]).encode()
    )
    assert ss.load(stream)[0] == full_fold(stream)


class _Planted:
    """What a stolen app credential could write into a record: a pickle that
    runs code when it is loaded."""

    ran = []

    def __reduce__(self):
        return (_Planted.ran.append, ("code ran",))


@pytest.mark.django_db
def test_a_planted_pickle_in_a_record_never_runs():
    stream = show()
    grant(stream)
    state, version, _ = ss.load(stream)
    readmodels._cache.clear()
    planted = pickle.dumps((readmodels._shape(), version, _Planted()))
    ShowRecord.objects.filter(stream=stream).update(folded=planted)
    assert ss.load(stream)[0] == full_fold(stream)
    assert _Planted.ran == []
    # what is stored is JSON, read back into the fold's own classes alone
    readmodels._cache.clear()
    grant(stream, "ben")
    blob = bytes(ShowRecord.objects.get(stream=stream).folded)
    at = json.loads(json.loads(blob)["fold"])[1]
    assert at <= ss.load(stream)[1]
    readmodels._cache.clear()
    assert readmodels._thaw(stream, blob)[1] == shows.fold(
        as_game_event(r) for r in read(stream) if r.version <= at
    )
    text = json.dumps([readmodels._shape(), 1, {"class": "User", "fields": {}}])
    sneaky = json.dumps({"fold": text, "mac": readmodels._mac(stream, text)}).encode()
    assert readmodels._thaw(stream, sneaky) is None


@pytest.mark.django_db
def test_every_fold_is_stored_as_json_invitations_and_undecided_slots_included():
    from tournaments import invitations

    stream = show()
    invitations.invite(stream, "ana", ORG)
    state, version, _ = ss.load(stream)
    kept = readmodels._thaw(stream, ShowRecord.objects.get(stream=stream).folded)
    assert kept == (version, state) and state.invitations
    bracket = bs.create_bracket(
        name="Cup", game="higher-lower", format="double", entrants=["ana", "ben", "cal", "dee"]
    )
    record = BracketRecord.objects.get(stream=bracket)
    folded, version = readmodels.bracket_folded(bracket)
    assert readmodels._thaw(bracket, record.folded) == (version, folded)


def test_the_fold_cache_is_safe_under_concurrent_eviction(monkeypatch):
    """The server's threads share the cache: a hit whose stream another
    thread evicts meanwhile was a KeyError."""
    monkeypatch.setattr(readmodels, "_CACHED", 2)
    readmodels._cache.clear()
    errors, stop = [], threading.Event()
    tokens = {}

    def keep(k):
        try:
            for i in range(3000):
                stream = f"s-{(i + k) % 5}"
                tokens[stream] = readmodels._keep(stream, 1, ("fold", i))["fold_token"]
        except Exception as exc:  # asserted on below
            errors.append(exc)

    def hit():
        try:
            while not stop.is_set():
                for stream, token in list(tokens.items()):
                    readmodels._cached(stream, token)
        except Exception as exc:  # asserted on below
            errors.append(exc)

    readers = [threading.Thread(target=hit) for _ in range(3)]
    writers = [threading.Thread(target=keep, args=(k,)) for k in range(3)]
    for t in readers + writers:
        t.start()
    for t in writers:
        t.join(timeout=60)
    stop.set()
    for t in readers:
        t.join(timeout=60)
    assert errors == []
    assert len(readmodels._cache) <= 2


@pytest.mark.django_db
def test_a_rolled_back_append_leaves_no_stale_fold():
    stream = show()
    grant(stream)
    before, version, _ = ss.load(stream)

    class Abort(Exception):
        pass

    with pytest.raises(Abort), transaction.atomic():
        grant(stream, "ben")  # projected: this process caches the fold with ben's item
        raise Abort
    state, v, _ = ss.load(stream)
    assert v == version and state == before == full_fold(stream)
    assert [it.holder for it in state.items.values()] == ["ana"]
    grant(stream, "cal")
    state = ss.load(stream)[0]
    assert state == full_fold(stream)
    assert [it.holder for it in state.items.values()] == ["ana", "cal"]


@pytest.mark.django_db
def test_incremental_bracket_fold_equals_a_full_fold():
    names = ["ana", "ben", "cal", "dee", "eve"]
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format="double",
        entrants=names,
        holders={n: "bot:heuristic" for n in names},
        rng=random.Random(2),
        now=T0,
    )
    play_all(stream, random.Random(2))
    folded, version = bs.bracket_folded(stream)
    assert folded[0].champion in names
    assert folded == fold_bracket(read(stream)) and version == len(read(stream))
    readmodels._cache.clear()
    BracketRecord.objects.filter(stream=stream).update(folded=None)
    assert bs.bracket_folded(stream) == (fold_bracket(read(stream)), version)


@pytest.mark.django_db
def test_a_record_made_by_its_streams_first_event_holds_that_event_in_full():
    # Django's create_defaults replaces defaults on create: a record born of the
    # first event alone must still carry its name, not only its stable id
    stream = show()
    first = read(stream)[0]
    ShowRecord.objects.all().delete()
    readmodels.project_show(first)
    record = ShowRecord.objects.get(stream=stream)
    assert record.pk == first.id and record.name and record.version == 1


def appoint_zoe(stream):
    return ss.command(stream, {"type": "appoint_moderator", "username": "zoe"}, ORG, now=T0)


@pytest.mark.django_db
def test_a_show_command_is_decided_from_the_log_not_a_forged_fold():
    """Someone with the app's credential stores, under the show's latest
    version, the fold from before zoe was appointed: appointing her again is
    refused (decided from the log), and nothing is written."""
    stream = show()
    User.objects.create_user("zoe")
    before, _version, _ = ss.load(stream)
    appoint_zoe(stream)
    version = len(read(stream))
    forged = [readmodels._shape(), version, readmodels._to_json(before)]
    readmodels._cache.clear()  # another process: only the record
    ShowRecord.objects.filter(stream=stream).update(folded=json.dumps(forged).encode())
    with pytest.raises(RuleError, match="moderator already"):
        appoint_zoe(stream)
    assert len(read(stream)) == version
    assert ss.load(stream)[0] == full_fold(stream)


@pytest.mark.django_db
def test_a_cached_fold_counts_at_its_own_version_not_the_records():
    """This process folded the show before zoe was appointed (another process
    appended that); the record's token is set back to this process's: its
    fold is folded on from its own version, so appointing zoe again is refused."""
    stream = show()
    User.objects.create_user("zoe")
    token = ShowRecord.objects.get(stream=stream).fold_token
    ours = readmodels._cache[stream]
    appoint_zoe(stream)
    readmodels._cache[stream] = ours  # the appointment was another process's
    ShowRecord.objects.filter(stream=stream).update(fold_token=token)
    version = len(read(stream))
    with pytest.raises(RuleError, match="moderator already"):
        appoint_zoe(stream)
    assert len(read(stream)) == version
