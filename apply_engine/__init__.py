"""fastapply: merge lazy AI edit snippets into files.

Data flow: request -> language/markers -> structural plan -> (optional) merge model with
speculative decoding -> merged file -> response. See README.md for the map.
"""

__version__ = "0.1.0"
