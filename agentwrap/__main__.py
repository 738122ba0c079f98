from agentwrap.cli import main

raise SystemExit(main())
