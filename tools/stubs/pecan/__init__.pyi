# What the type check needs to know of pecan, which ships no types: abort()
# raises (so code after it is unreachable); everything else is Any.
from typing import Any, NoReturn

def abort(status_code: int, detail: str = ..., headers: Any = ...,
          comment: Any = ..., **kw: Any) -> NoReturn: ...
def __getattr__(name: str) -> Any: ...
