from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [("eventlog", "0007_reactors_event_tx")]

    operations = [
        migrations.CreateModel(
            name="ReactorPartition",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("reactor", models.CharField(max_length=100)),
                ("partition", models.PositiveSmallIntegerField()),
                ("after_tx", models.BigIntegerField(default=0)),
                ("after_id", models.BigIntegerField(default=0)),
                ("owner", models.CharField(blank=True, default="", max_length=100)),
                ("lease_until", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("reactor", "partition"), name="reactor_partition_uniq"
                    )
                ]
            },
        ),
        migrations.CreateModel(
            name="ReactorFollower",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("owner", models.CharField(max_length=100, unique=True)),
                ("alive_until", models.DateTimeField()),
            ],
        ),
    ]
