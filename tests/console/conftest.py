import pytest
from django.contrib.auth.models import Permission, User


@pytest.fixture
def organizer(db):
    user = User.objects.create_user("olga", "olga@example.com", "pw-olga-123")
    user.user_permissions.add(Permission.objects.get(codename="add_match"))
    return user


@pytest.fixture
def alice(db):
    return User.objects.create_user("alice", "alice@example.com", "pw-alice-123")


@pytest.fixture
def org_client(client, organizer):
    client.force_login(organizer)
    return client
