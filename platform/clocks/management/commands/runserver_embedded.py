from daphne.management.commands.runserver import Command as RunserverCommand

from clocks import embedded


class Command(RunserverCommand):
    help = "runserver plus the in-process clock worker (embedded mode, `make run`)."

    def inner_run(self, *args, **options):
        embedded.start()
        self.stdout.write("clock worker running in-process (deadlines enforced)")
        return super().inner_run(*args, **options)
