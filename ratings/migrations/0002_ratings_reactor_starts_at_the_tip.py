"""The ratings reactor (after-commit rating, ratings/apps.py) starts where the
log ends when this runs: every match that ended before was rated inside its
append by the projector, so reading those again would only be a long first
catch-up (skipped results, and an overturned match's old end applied and
then corrected). An empty log makes no rows: the reactor starts at 0."""

from django.db import migrations


def start_at_the_tip(apps, schema_editor):
    from reactors.follow import start_at_the_tip

    checkpoints = apps.get_model("reactors", "ReactorPartition")
    start_at_the_tip("ratings", checkpoints, schema_editor.connection)


class Migration(migrations.Migration):
    dependencies = [
        ("ratings", "0001_ratings_profiles_seasons"),
        ("reactors", "0001_reactors_checkpoints"),
        ("eventlog", "0008_reactfix_notify_streams"),
    ]

    operations = [migrations.RunPython(start_at_the_tip, migrations.RunPython.noop)]
