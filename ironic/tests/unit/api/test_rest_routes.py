"""``rest_routes.direct_get`` and ``direct_post`` route only where pecan's
RestController would route the same way: the same answers with and
without them."""

from __future__ import annotations

import itertools

import pecan
import pytest
import webob
from pecan import rest

from ironic.api import rest_routes


class _Sub(rest.RestController):
    @pecan.expose("json")
    def get_all(self, **kw):
        return {"handler": "sub.get_all", "kw": kw}


class _Items(rest.RestController):
    _custom_actions = {"detail": ["GET"], "summary": ["GET"]}
    sub = _Sub()

    @pecan.expose("json")
    def get_all(self, **kw):
        return {"handler": "get_all", "kw": kw}

    @pecan.expose("json")
    def get_one(self, ident, **kw):
        return {"handler": "get_one", "ident": ident, "kw": kw}

    @pecan.expose("json")
    def detail(self, **kw):
        return {"handler": "detail", "kw": kw}

    @pecan.expose("json")
    def get_summary(self, **kw):
        return {"handler": "get_summary"}

    @pecan.expose("json")
    def get_delete(self, ident):
        return {"handler": "get_delete", "ident": ident}

    @pecan.expose("json")
    def delete(self, ident):
        return {"handler": "delete", "ident": ident}

    @pecan.expose()
    def _lookup(self, ident, *remainder):
        if ident == "found":
            return _Sub(), list(remainder)
        pecan.abort(404)


class _TwoArgs(_Items):
    """``get_one`` taking a second positional: pecan 404s ``GET /<id>``."""

    @pecan.expose("json")
    def get_one(self, ident, other, **kw):
        return {"handler": "get_one2", "ident": ident}


class _Posting(_Items):
    """A collection taking POSTs, with a sub-collection that does too."""

    sub = _Sub()

    @pecan.expose("json")
    def post(self, **kw):
        return {"handler": "post", "kw": kw}

    @pecan.expose()
    def _lookup(self, ident, *remainder):
        if ident == "found":
            return _direct(_Posting)(), list(remainder)
        pecan.abort(404)


class _PostingTwo(_Posting):
    """``post`` taking a positional: pecan routes ``POST /`` to it still."""

    @pecan.expose("json")
    def post(self, ident=None, **kw):
        return {"handler": "post2", "ident": ident}


def _direct(base):
    class Direct(base):
        @pecan.expose()
        def _route(self, args, request):
            return rest_routes.direct(self, args, request) or \
                super()._route(args, request)
    return Direct


class _Root:
    def __init__(self, items, two, posting, posting_two):
        self.items = items
        self.two = two
        self.posting = posting
        self.posting_two = posting_two


_PLAIN = pecan.make_app(_Root(_Items(), _TwoArgs(), _Posting(),
                              _PostingTwo()))
_DIRECT = pecan.make_app(_Root(
    _direct(_Items)(), _direct(_TwoArgs)(), _direct(_Posting)(),
    _direct(_PostingTwo)()))

# Not "/__class__" and the like: pecan fails on those either way (the API
# answers them 404 before pecan, see ironic.api.middleware.paths).
_PATHS = ["", "/", "/abc", "/abc/", "/detail", "/summary", "/new",
          "/edit", "/delete", "/sub", "/sub/", "/found", "/found/x",
          "/abc/delete", "/get_one", "/abc/sub"]
_QUERIES = ["", "?a=1", "?_method=delete", "?_method=put"]
_METHODS = ["GET", "HEAD", "POST", "DELETE", "PUT"]


def _answer(app, method, url):
    try:
        resp = webob.Request.blank(url, method=method).get_response(app)
    except TypeError as e:  # pecan calls a handler with missing arguments
        return repr(e)
    return resp.status_int, resp.headers.get("Allow"), resp.body


@pytest.mark.parametrize("collection",
                         ["items", "two", "posting", "posting_two"])
def test_same_answers_as_pecan(collection):
    for method, path, query in itertools.product(_METHODS, _PATHS,
                                                 _QUERIES):
        url = f"/{collection}{path}{query}"
        assert _answer(_DIRECT, method, url) == \
            _answer(_PLAIN, method, url), (method, url)


class _Request:
    def __init__(self, method="GET", params=None):
        self.method = method
        self.params = params or {}


def test_routes_the_two_get_shapes_directly():
    items = _Items()
    assert rest_routes.direct_get(items, [], _Request()) == \
        (items.get_all, [])
    assert rest_routes.direct_get(items, [""], _Request()) == \
        (items.get_all, [])
    assert rest_routes.direct_get(items, ["abc"], _Request()) == \
        (items.get_one, ["abc"])


@pytest.mark.parametrize("args,request_", [
    (["detail"], _Request()), (["summary"], _Request()),
    (["sub"], _Request()), (["new"], _Request()), (["delete"], _Request()),
    (["abc", "x"], _Request()), (["abc"], _Request("POST")),
    (["abc"], _Request("HEAD")), (["abc"], _Request(params={"_method": "x"})),
])
def test_leaves_everything_else_to_pecan(args, request_):
    assert rest_routes.direct_get(_Items(), args, request_) is None


def test_leaves_handlers_of_other_signatures_to_pecan():
    assert rest_routes.direct_get(_TwoArgs(), ["abc"], _Request()) is None


def test_routes_post_of_the_collection_directly():
    posting = _Posting()
    assert rest_routes.direct_post(posting, [], _Request("POST")) == \
        (posting.post, [])
    assert rest_routes.direct(posting, [], _Request("POST")) == \
        (posting.post, [])


@pytest.mark.parametrize("controller,args,request_", [
    (_Posting(), [""], _Request("POST")),
    (_Posting(), ["abc"], _Request("POST")),
    (_Posting(), [], _Request("PUT")),
    (_Posting(), [], _Request("POST", {"_method": "put"})),
    (_PostingTwo(), [], _Request("POST")),  # another signature
    (_Items(), [], _Request("POST")),  # no post: pecan's 405
])
def test_leaves_other_posts_to_pecan(controller, args, request_):
    assert rest_routes.direct_post(controller, args, request_) is None


def test_leaves_posts_below_a_parent_item_to_pecan():
    request_ = _Request("POST")
    request_.pecan = {"routing_args": ["abc"]}
    assert rest_routes.direct_post(_Posting(), [], request_) is None
