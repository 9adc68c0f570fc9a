"""Where each reactor is in the log, per partition of the streams, and who
follows that partition now (a lease that its holder renews)."""

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
