"""Frozen records, the shape of the report's data model (the base of every report section).

A record class lists its fields as annotations with defaults, as a frozen dataclass would::

    class Memory(Record):
        total_bytes: int | None = None
        nodes: list[dict] = field(default_factory=list)      # a fresh list for each record

and gets construction by keyword (or by position, in field order), equality by value, a
readable repr, ``replace(**changes)`` and the ``fields`` tuple. It stands in for
``dataclasses`` on the headless probe's path: importing dataclasses (inspect, ast, dis,
tokenize) and generating each class's methods cost about a sixth of ``accelgui --probe``.
Type checkers see a record class as the frozen dataclass it behaves like
(``typing.dataclass_transform``, :pep:`681`), so its fields and constructor are checked.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from typing_extensions import Self, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**_options):
        """At run time a marker only: what it tells type checkers, Record does itself."""
        return lambda cls: cls

_REQUIRED = object()


def iso_now(utc: bool = False) -> str:
    """Now as ISO 8601 to the second with its UTC offset ("2026-12-01T14:05:09+01:00"), local
    time unless ``utc``: what ``datetime.now(tz).isoformat(timespec="seconds")`` gives, without
    importing datetime on the headless probe's path."""
    t = time.gmtime() if utc else time.localtime()
    off = 0 if utc else t.tm_gmtoff or 0
    sign, off = ("-", -off) if off < 0 else ("+", off)
    zone = f"{sign}{off // 3600:02d}:{off % 3600 // 60:02d}" + (f":{off % 60:02d}" if off % 60 else "")
    return time.strftime("%Y-%m-%dT%H:%M:%S", t) + zone


class factory:
    """A default built anew for every record (what :func:`field` gives)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


if TYPE_CHECKING:
    def field(*, default_factory: Callable[[], _T]) -> _T: ...
else:
    def field(*, default_factory):
        """A field whose default is made anew for every record: ``field(default_factory=list)``."""
        return factory(default_factory)


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
class Record:
    fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        defaults: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            own = vars(klass)
            for name in own.get("__annotations__", {}):
                if name not in ("fields", "_defaults"):
                    defaults[name] = own.get(name, defaults.get(name, _REQUIRED))
        for name in defaults:       # the values live on the instances, not the class
            if name in vars(cls):
                delattr(cls, name)
        cls._defaults = defaults
        cls.fields = tuple(defaults)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if len(args) > len(cls.fields):
            raise TypeError(f"{cls.__name__} takes at most {len(cls.fields)} positional arguments")
        values = dict(zip(cls.fields, args))
        for name, value in kwargs.items():
            if name not in cls._defaults:
                raise TypeError(f"{cls.__name__} has no field {name!r}")
            if name in values:
                raise TypeError(f"{cls.__name__} got {name!r} twice")
            values[name] = value
        own = self.__dict__
        for name, default in cls._defaults.items():
            if name in values:
                own[name] = values[name]
            elif default is _REQUIRED:
                raise TypeError(f"{cls.__name__} needs {name!r}")
            else:
                own[name] = default.make() if isinstance(default, factory) else default

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen; use replace()")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None     # type: ignore[assignment]  # records hold lists and dicts

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={value!r}" for name, value in self.__dict__.items())
        return f"{type(self).__name__}({inner})"

    def replace(self, **changes: Any) -> Self:
        """A copy with some fields changed."""
        return type(self)(**{**self.__dict__, **changes})
