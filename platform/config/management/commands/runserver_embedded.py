"""`manage.py runserver_embedded` (`make run`): the server with every
background worker of embedded mode in its own process."""

from daphne.management.commands.runserver import Command as RunserverCommand
from django.conf import settings

from clocks import embedded
from config import embedded_schedule
from hooks import embedded as embedded_hooks
from reactors import embedded as embedded_reactors
from reminders import embedded as embedded_reminders


class Command(RunserverCommand):
    help = (
        "runserver plus the in-process clock worker and webhook sender (embedded mode, `make run`)."
    )

    def inner_run(self, *args, **options):
        embedded.start()
        self.stdout.write("clock worker running in-process (deadlines enforced)")
        embedded_reactors.start()
        self.stdout.write("reactors following the log in-process (webhook deliveries written)")
        if settings.CELERY_BROKER_URL.startswith("memory://"):  # else Celery workers send them
            embedded_hooks.start()
            self.stdout.write("webhook sender running in-process (deliveries sent)")
            embedded_reminders.start()
            self.stdout.write("reminder sender running in-process (e-mail, web push)")
            embedded_schedule.start()
            self.stdout.write("database schedule running in-process (recurring shows)")
        return super().inner_run(*args, **options)
