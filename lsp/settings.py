"""The `fastApply` settings section, read from initializationOptions and `workspace/configuration`.

Keys are camelCase, as editors write them: {"engine", "model", "device", "serverUrl", "apiKey"}. A value the
client leaves out (or sends as null) keeps the value below it: defaults < initializationOptions <
workspace configuration.
"""

from typing import Any

import msgspec

from apply_engine.config import Device
from apply_engine.errors import InputError
from apply_engine.schemas import EngineName

SECTION = "fastApply"


class Settings(msgspec.Struct, frozen=True, rename="camel"):
    engine: EngineName = "auto"
    model: str | None = None  # alias, HF directory or .gguf file; None = structural merge only
    device: Device = "auto"
    server_url: str | None = None  # a running `fastapply serve`; when set, no model loads here
    api_key: str | None = None  # its bearer token (`serve --api-key-env`); else $FASTAPPLY_API_KEY

    @property
    def uses_model(self) -> bool:
        """Whether a merge may run a model (locally or on the server), so is worth a progress bar."""
        if self.engine == "structural":
            return False
        return self.server_url is not None or self.model is not None


def section_of(options: Any) -> dict[str, Any]:
    """The settings dict inside initializationOptions, which clients send nested or flat."""
    if not isinstance(options, dict):
        return {}
    nested = options.get(SECTION)
    return nested if isinstance(nested, dict) else options


def updated(settings: Settings, values: Any) -> Settings:
    """`settings` with the non-null values of one settings dict laid over it.

    Raises InputError naming the setting when a value has the wrong type or is not allowed.
    """
    current = msgspec.to_builtins(settings)
    given = {key: value for key, value in section_of(values).items() if value is not None}
    known = {key: value for key, value in given.items() if key in current}
    try:
        return msgspec.convert({**current, **known}, Settings)
    except msgspec.ValidationError as error:
        raise InputError(f"invalid {SECTION} setting: {error}", field="settings") from error
