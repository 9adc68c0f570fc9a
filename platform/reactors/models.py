"""Where each reactor is in the log, per partition of the streams, and who
follows that partition now (a lease that its holder renews); the appends a
reactor kept failing on, set aside (parked) so that the rest goes on."""

from django.db import models


class ReactorPartition(models.Model):
    """One partition of one reactor: its checkpoint (the position of the last
    event it handled: writing transaction id, event id) and its lease."""

    reactor = models.CharField(max_length=100)
    partition = models.PositiveSmallIntegerField()
    after_tx = models.BigIntegerField(default=0)
    after_id = models.BigIntegerField(default=0)
    owner = models.CharField(max_length=100, blank=True, default="")
    lease_until = models.DateTimeField(null=True, blank=True)
    # the reactor failed on the append after the checkpoint this many times in
    # a row: tried again from retry_at (backoff), parked after REACTOR_RETRIES
    failures = models.PositiveIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["reactor", "partition"], name="reactor_partition_uniq")
        ]

    def __str__(self):
        return f"{self.reactor}#{self.partition} after {self.after_tx}/{self.after_id}"


class ReactorFollower(models.Model):
    """A process following the log, alive until ``alive_until`` unless it
    renews: the partitions are shared among the live ones."""

    owner = models.CharField(max_length=100, unique=True)
    alive_until = models.DateTimeField()

    def __str__(self):
        return self.owner


class ParkedAppend(models.Model):
    """One append (a stream's versions written by one transaction) a reactor
    failed on REACTOR_RETRIES times in a row, set aside so that its partition
    goes on: never skipped silently. Shown in the admin and counted by
    /healthz; tried again by the admin's action or `manage.py retry_parked`."""

    reactor = models.CharField(max_length=100)
    stream = models.CharField(max_length=200)
    first_version = models.PositiveIntegerField()
    last_version = models.PositiveIntegerField()
    error = models.CharField(max_length=300)
    attempts = models.PositiveIntegerField()
    parked_at = models.DateTimeField(auto_now_add=True)
    retried_at = models.DateTimeField(null=True, blank=True)
    handled = models.BooleanField(default=False)  # a later try went through

    class Meta:
        ordering = ["-id"]
        indexes = [models.Index(fields=["handled"], name="reactors_parked_handled_idx")]

    def __str__(self):
        return f"{self.reactor} on {self.stream}@{self.first_version}-{self.last_version}"
