"""agent-tui: a terminal coding agent whose edge is context engineering.

Importing the package must stay cheap: no litellm, no textual here.

``LITELLM_MODE=PRODUCTION`` is set before anything can import litellm: in its default "DEV"
mode ``import litellm`` calls ``dotenv.load_dotenv()``, which walks up from litellm's own
folder — so with agent-tui installed in a project's virtualenv, the project's ``.env`` would
set ``OPENAI_BASE_URL``, proxies or CA bundles for the whole process and send the user's key
where the repository says.  Only the user's own environment counts.
``LITELLM_LOCAL_MODEL_COST_MAP`` likewise: without it ``import litellm`` fetches its price map from
GitHub (three tries, warnings on stderr when offline), whichever module imports it first (the offline
demo's provider did, before ``agent.llm`` set it).
"""

import os as _os

_os.environ.setdefault("LITELLM_MODE", "PRODUCTION")
_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

__version__ = "0.1.0"
