"""Presigns the EKS token request with Debian awscli's botocore at a given X-Amz-Date; prints the URL.

An independent SigV4 implementation for test/tools/shared/credentials/eks.test.ts. Input on stdin, one JSON object:
accessKeyId, secretAccessKey, sessionToken (or null), region, cluster, amzDate (YYYYMMDDTHHMMSSZ). Run with
Debian's /usr/bin/python3 and the awscli package's folder first on sys.path (argv[1]).
"""
import datetime
import json
import sys
import types

sys.path.insert(0, sys.argv[1])
import awscli  # noqa: E402,F401  (installs the alias that makes the vendored botocore importable as botocore)
from botocore import auth  # noqa: E402
from botocore.awsrequest import AWSRequest  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402

params = json.load(sys.stdin)
frozen = datetime.datetime.strptime(params["amzDate"], "%Y%m%dT%H%M%SZ")


class FrozenDatetime(datetime.datetime):
    @classmethod
    def utcnow(cls):
        return frozen


# SigV4Auth.add_auth stamps datetime.datetime.utcnow(); freeze it at the date we were given.
auth.datetime = types.SimpleNamespace(datetime=FrozenDatetime)

credentials = Credentials(params["accessKeyId"], params["secretAccessKey"], params["sessionToken"])
region = params["region"]
request = AWSRequest(
    method="GET",
    url="https://sts.%s.amazonaws.com/?Action=GetCallerIdentity&Version=2011-06-15" % region,
    headers={"x-k8s-aws-id": params["cluster"]},
)
auth.SigV4QueryAuth(credentials, "sts", region, expires=60).add_auth(request)
print(request.url)
