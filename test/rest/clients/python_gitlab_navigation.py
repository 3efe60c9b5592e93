"""python-gitlab, unchanged, finds its way through pulsegate: a user and their events, projects by
search, membership, ownership and order, a namespace to create a project in, issues across
projects, and every project through keyset pages.

Usage: python3 python_gitlab_navigation.py URL TOKEN
Prints one JSON object: what the client saw, for the Node test to check.
"""
import json
import sys

import gitlab

url, token = sys.argv[1:3]
gl = gitlab.Gitlab(url, private_token=token, api_version="4")
requested = []
gl.session.hooks["response"].append(lambda r, *args, **kwargs: requested.append(r.url))


def paths(projects):
    return [p.path_with_namespace for p in projects]


found = gl.users.list(username="bob")
bob = gl.users.get(found[0].id)
events = bob.events.list(get_all=True)

namespace = gl.namespaces.list(search="acme")[0]
created = gl.projects.create({"name": "Snake Pit", "namespace_id": namespace.id})
by_path = gl.namespaces.get("acme")

requested.clear()
keyset = gl.projects.list(
    pagination="keyset", order_by="id", sort="asc", per_page=2, get_all=True
)
keyset_requests = list(requested)

print(
    json.dumps(
        {
            "user": [bob.username, bob.state],
            "events": [[e.action_name, e.target_title] for e in events],
            "search": paths(gl.projects.list(search="rocket", get_all=True)),
            "membership": paths(gl.projects.list(membership=True, get_all=True)),
            "owned": paths(gl.projects.list(owned=True, get_all=True)),
            "ordered": paths(gl.projects.list(order_by="name", sort="asc", get_all=True)),
            "namespace": [namespace.kind, namespace.full_path, by_path.id == namespace.id],
            "created": created.path_with_namespace,
            "issues": [i.title for i in gl.issues.list(scope="all", get_all=True)],
            "keyset": [p.id for p in keyset],
            "keyset_requests": keyset_requests,
        }
    )
)
