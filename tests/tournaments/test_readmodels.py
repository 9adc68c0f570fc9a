"""Shows and brackets are folded incrementally from their records: the
result always equals a full fold of the stream, and a fold that is not the
record's (rolled back, written by other code) is never used."""

import pickle
import random

import pytest
from django.db import transaction

from eventlog.store import read
from games.core.adapt import as_game_event
from tournaments import autopilot, readmodels, shows
from tournaments import bracket_services as bs
from tournaments import show_services as ss
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
    # another process: no cached fold, the record's pickled one plus the events after it
    readmodels._cache.clear()
    kept_at = readmodels._thaw(ShowRecord.objects.get(stream=stream).folded)[0]
    assert kept_at < version
    assert ss.load(stream)[0] == full_fold(stream)
    # no usable pickle either (another shape of the classes): folded from the start
    readmodels._cache.clear()
    ShowRecord.objects.filter(stream=stream).update(
        folded=pickle.dumps(("another shape", version, "not a show"))
    )
    assert ss.load(stream)[0] == full_fold(stream)


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
    assert folded == bs.fold_bracket(read(stream)) and version == len(read(stream))
    readmodels._cache.clear()
    BracketRecord.objects.filter(stream=stream).update(folded=None)
    assert bs.bracket_folded(stream) == (bs.fold_bracket(read(stream)), version)


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
