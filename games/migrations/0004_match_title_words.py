from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0003_notification"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="title_words",
            field=models.JSONField(blank=True, default=dict),
        ),
    ]
