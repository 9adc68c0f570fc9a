from django.core.management.base import BaseCommand

from reminders import push


class Command(BaseCommand):
    help = "Make this site's VAPID key pair for web push (once, into VAPID_PRIVATE_KEY_FILE)."

    def handle(self, *args, **options):
        made = push.make_keys()
        if options["verbosity"]:
            where = push.key_file()
            self.stdout.write(f"VAPID keys {'made in' if made else 'kept in'} {where}")
