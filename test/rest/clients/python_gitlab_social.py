"""python-gitlab, unchanged, stars and follows through pulsegate: star, star again (GitLab's 304
is the client's error), list starrers and starred projects, unstar; follow, list followers and
following, unfollow.

Usage: python3 python_gitlab_social.py URL TOKEN PROJECT_ID USER_ID
Prints one JSON object: what the client saw, for the Node test to check.
"""
import json
import sys

import gitlab

url, token, project_id, user_id = sys.argv[1:5]
gl = gitlab.Gitlab(url, private_token=token, api_version="4")
gl.auth()
me = gl.user

project = gl.projects.get(int(project_id))
project.star()
starred_count = project.star_count
try:
    project.star()
    again = None
except gitlab.exceptions.GitlabCreateError as error:
    again = error.response_code
starrers = gl.http_list(f"/projects/{project.id}/starrers", get_all=True)
starred = [
    p.path_with_namespace for p in gl.users.get(me.id).starred_projects.list(get_all=True)
]
project.unstar()
unstarred_count = project.star_count
try:
    project.unstar()
    unstar_again = None
except gitlab.exceptions.GitlabDeleteError as error:
    unstar_again = error.response_code

user = gl.users.get(int(user_id))
followed = user.follow()
try:
    user.follow()
    follow_again = None
except gitlab.exceptions.GitlabFollowError as error:
    follow_again = error.response_code
followers = [u.username for u in user.followers_users.list(get_all=True)]
following = [u.username for u in gl.users.get(me.id).following_users.list(get_all=True)]
counts = gl.users.get(int(user_id))
unfollowed = user.unfollow()
after = [u.username for u in user.followers_users.list(get_all=True)]

print(
    json.dumps(
        {
            "star_count": [starred_count, unstarred_count],
            "star_again": again,
            "unstar_again": unstar_again,
            "starrers": [[s["user"]["username"], "starred_since" in s] for s in starrers],
            "starred": starred,
            "followed": followed["username"],
            "follow_again": follow_again,
            "followers": followers,
            "following": following,
            "counts": [counts.followers, counts.following, counts.is_followed],
            "unfollowed": unfollowed["username"],
            "followers_after": after,
        }
    )
)
