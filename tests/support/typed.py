"""Narrows what protobuf and our registry hand back as plain `Message` to what a test expects.

Transports, the registry and the emulator handle every API version generically, so what they
return is typed `Message`; a test that reads fields narrows it here first, which checks the
class at run time too.
"""

from __future__ import annotations

from typing import TypeVar, cast

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


def typed(message_class: type[M], message: object) -> M:
    """`message`, once checked to be a `message_class`: its fields are then typed.

    >>> from google.protobuf.struct_pb2 import Struct
    >>> typed(Struct, Struct()).fields
    {}
    """
    assert isinstance(message, message_class), (
        f"expected a {message_class.DESCRIPTOR.full_name}, got {type(message).__name__}"
    )
    return message


def descriptor_of(message_class: type[Message]) -> Descriptor:
    """The descriptor of `message_class`, typed as the public `Descriptor`.

    types-protobuf types `DESCRIPTOR` as that or upb's class, which has the same API.

    >>> from google.protobuf.struct_pb2 import Struct
    >>> descriptor_of(Struct).full_name
    'google.protobuf.Struct'
    """
    return cast(Descriptor, message_class.DESCRIPTOR)
