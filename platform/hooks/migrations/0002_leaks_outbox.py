from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("hooks", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="webhookendpoint",
            name="owner_id",
            field=models.PositiveBigIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="webhookendpoint",
            name="live",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="webhookdelivery",
            name="due_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddIndex(
            model_name="webhookdelivery",
            index=models.Index(fields=["status", "due_at"], name="hooks_delivery_due_idx"),
        ),
    ]
