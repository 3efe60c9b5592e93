"""python-gitlab, unchanged, drives a project's life against pulsegate.

Usage: python3 python_gitlab_flow.py URL OWNER_TOKEN MEMBER_TOKEN MEMBER_ID PROJECT_NAME
Prints one JSON object: what the client saw, for the Node test to check.
"""
import json
import sys

import gitlab

url, owner_token, member_token, member_id, name = sys.argv[1:6]
owner = gitlab.Gitlab(url, private_token=owner_token, api_version="4")
member = gitlab.Gitlab(url, private_token=member_token, api_version="4")

project = owner.projects.create({"name": name, "visibility": "public"})
project.members.create({"user_id": int(member_id), "access_level": 30})

# The member works through their own view of the project.
theirs = member.projects.get(project.id)
issue = theirs.issues.create({"title": "Printer on fire", "description": "Smoke"})
issue.notes.create({"body": "Extinguisher on its way"})
issue.state_event = "close"
issue.save()
closed_state = issue.state
issue.state_event = "reopen"
issue.save()

mr = theirs.mergerequests.create(
    {"source_branch": "fire-fix", "target_branch": "main", "title": "Put out the fire"}
)
mine = project.mergerequests.get(mr.iid)
mine.approve()
mine.merge()
merged = project.mergerequests.get(mr.iid)

try:
    theirs.issues.create({"title": "   "})
    blank_title = None
except gitlab.exceptions.GitlabCreateError as error:
    blank_title = [error.response_code, error.error_message]

events = project.events.list(all=True)
print(
    json.dumps(
        {
            "project": [project.id, project.path_with_namespace],
            "issue": [issue.iid, issue.state, closed_state],
            "mr": [merged.iid, merged.state, merged.merged_by["username"]],
            "notes": [n.body for n in issue.notes.list(all=True)],
            "blank_title": blank_title,
            "events": [
                [e.author_username, e.action_name, e.target_type] for e in reversed(events)
            ],
        }
    )
)
