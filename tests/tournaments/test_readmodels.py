"""Shows and brackets are folded incrementally from their records: the
result always equals a full fold of the stream, and a fold that is not the
record's (rolled back, written by other code) is never used."""

import json
import pickle
import random
import threading
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.db import transaction

from eventlog.store import read
from games.core.adapt import as_game_event
from games.core.protocol import RuleError
from games.states import CACHE_ALIAS
from runtime.seal import seal
from tournaments import autopilot, kept_folds, readmodels, shows
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


def another_process(shared=True):
    """What a process that kept nothing starts from (with, or without, what
    the cache every process shares holds)."""
    kept_folds.forget_local()
    if not shared:
        caches[CACHE_ALIAS].clear()


def snapshot_of(stream, model=ShowRecord):
    return kept_folds.from_snapshot(stream, model.objects.get(stream=stream).folded)


@pytest.mark.django_db
def test_incremental_show_fold_equals_a_full_fold():
    rng = random.Random(5)
    stream = show(rng=rng)
    autopilot.run(stream, rng, start=T0)
    state, version, _ = ss.load(stream)
    assert state.champion is not None and version == len(read(stream))
    assert state == full_fold(stream)
    # another process, the shared cache lost: the record's snapshot plus the events after it
    another_process(shared=False)
    kept_at = snapshot_of(stream).version
    assert kept_at < version
    assert ss.load(stream)[0] == full_fold(stream)
    # no usable snapshot either (another shape of the classes): folded from the start
    another_process(shared=False)
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
    another_process(shared=False)
    planted = pickle.dumps((kept_folds.shape(), version, _Planted()))
    ShowRecord.objects.filter(stream=stream).update(folded=planted)
    assert ss.load(stream)[0] == full_fold(stream)
    assert _Planted.ran == []
    # what is stored is JSON, read back into the fold's own classes alone
    another_process(shared=False)
    grant(stream, "ben")
    blob = bytes(ShowRecord.objects.get(stream=stream).folded)
    at = json.loads(json.loads(blob)["json"])["tag"][0]
    assert at <= ss.load(stream)[1]
    another_process(shared=False)
    assert kept_folds.from_snapshot(stream, blob).fold == shows.fold(
        as_game_event(r) for r in read(stream) if r.version <= at
    )
    text = json.dumps(
        {
            "shape": kept_folds.shape(),
            "tag": [1, 1, "2030-01-01T00:00:00+00:00"],
            "fold": {"class": "User", "fields": {}},
        }
    )
    sneaky = json.dumps(seal(kept_folds._SNAPSHOT_PURPOSE, stream, text)).encode()
    assert kept_folds.from_snapshot(stream, sneaky) is None


@pytest.mark.django_db
def test_every_fold_is_stored_as_json_invitations_and_undecided_slots_included():
    from tournaments import invitations

    stream = show()
    invitations.invite(stream, "ana", ORG)
    state, version, _ = ss.load(stream)
    kept = snapshot_of(stream)
    assert (kept.version, kept.fold) == (version, state) and state.invitations
    bracket = bs.create_bracket(
        name="Cup", game="higher-lower", format="double", entrants=["ana", "ben", "cal", "dee"]
    )
    folded, version = readmodels.bracket_folded(bracket)
    kept = snapshot_of(bracket, BracketRecord)
    assert (kept.version, kept.fold) == (version, folded)


def test_the_fold_cache_is_safe_under_concurrent_eviction(monkeypatch):
    """The server's threads share this process's tier: a hit whose stream
    another thread evicts meanwhile must not fail."""
    monkeypatch.setattr(kept_folds.KEPT, "local_max", 2)
    kept_folds.forget_local()
    errors, stop = [], threading.Event()
    at = datetime(2030, 1, 1, tzinfo=UTC)

    def keep(k):
        try:
            for i in range(3000):
                entry = kept_folds.Entry((i, i, at), ("fold", i))
                kept_folds._keep_local(f"s-{(i + k) % 5}", entry)
        except Exception as exc:  # asserted on below
            errors.append(exc)

    def hit():
        try:
            while not stop.is_set():
                for k in range(5):
                    kept_folds.local_entry(f"s-{k}")
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
    assert len(kept_folds.KEPT.local_tier) <= 2


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
    another_process(shared=False)
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
def test_a_show_command_is_decided_from_the_log_not_a_forged_fold(
    django_capture_on_commit_callbacks,
):
    """Someone with the cache's or the app's credential keeps, under the
    show's tip, the fold from before zoe was appointed (their seal is the
    real one's, having no key to make one): appointing her again is refused
    (decided from the log), and nothing is written."""
    stream = show()
    User.objects.create_user("zoe")
    before, _version, _ = ss.load(stream)
    with django_capture_on_commit_callbacks(execute=True):
        appoint_zoe(stream)
    version = len(read(stream))
    key, tip = kept_folds._key(stream), kept_folds.local_entry(stream).tag
    forged = kept_folds._entry_text(kept_folds.Entry(tip, before))
    real = caches[CACHE_ALIAS].get(key)
    assert real is not None  # the committed fold is shared
    caches[CACHE_ALIAS].set(key, {**real, "json": forged})
    blob = json.loads(bytes(ShowRecord.objects.get(stream=stream).folded))
    ShowRecord.objects.filter(stream=stream).update(
        folded=json.dumps({**blob, "json": forged}).encode()
    )
    another_process()  # only the shared cache and the record
    with pytest.raises(RuleError, match="moderator already"):
        appoint_zoe(stream)
    assert len(read(stream)) == version
    assert ss.load(stream)[0] == full_fold(stream)


@pytest.mark.django_db
def test_a_kept_fold_counts_at_its_own_version_not_the_tips():
    """This process kept the show before zoe was appointed (another process
    appended that): its fold is folded on from its own version, so appointing
    zoe again is refused."""
    stream = show()
    User.objects.create_user("zoe")
    ours = kept_folds.local_entry(stream)
    appoint_zoe(stream)
    another_process(shared=False)
    kept_folds._keep_local(stream, ours)  # the appointment was another process's
    version = len(read(stream))
    with pytest.raises(RuleError, match="moderator already"):
        appoint_zoe(stream)
    assert len(read(stream)) == version
