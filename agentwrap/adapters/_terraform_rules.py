"""terraform's problem rules. BLOCK_RULES match one diagnostic at a time, in the form
`Error: SUMMARY` / `  on FILE line N` / `DETAIL` (see _terraform_parse.Diagnostic.text), so a rule sees its own
block's detail and never a neighbour's; TEXT_RULES match the whole output (messages outside any box).
"""

from __future__ import annotations

from typing import Any

from agentwrap.spec import rule as _rule

_DOCS = "https://developer.hashicorp.com/terraform/cli/commands/"
_INIT = {"title": "Initialise the working directory (providers, modules, lock file)",
         "command": ["{prog}", "init", "-input=false"], "applicability": "machine_applicable", "is_preferred": True}
_NETWORK = (r"(?:could not connect|dial tcp|no such host|i/o timeout|connection refused|TLS handshake timeout|"
            r"timeout awaiting|network is unreachable|context deadline exceeded|Client\.Timeout)")




BLOCK_RULES: list[dict[str, Any]] = [
    _rule("TERRAFORM_STATE_LOCKED",
          r"^Error: Error (?:acquiring|locking) the state lock(?:[\s\S]*?\bID:\s+(?P<lock_id>[0-9A-Za-z-]+))?",
          "State is locked by another operation", "conflict", 409, True, True,
          "Another terraform run holds the state lock (Lock Info above says who). Wait for it to finish, or re-run "
          "with `-lock-timeout=5m` to wait; force-unlock only if that run is certainly dead.",
          docs_url=_DOCS + "force-unlock",
          code_actions=[
              {"title": "Re-run, waiting up to 5 minutes for the lock", "command": ["{prog}", "{args...}",
                                                                                   "-lock-timeout=5m"],
               "applicability": "maybe_incorrect", "is_preferred": True},
              {"title": "Only if the lock holder is gone for good: remove lock {lock_id}",
               "command": ["{prog}", "force-unlock", "-force", "{lock_id}"], "applicability": "maybe_incorrect"}]),
    _rule("TERRAFORM_INIT_REQUIRED",
          r"^Error: (?:Provider requirements cannot be satisfied by locked dependencies|Module version requirements "
          r"have changed)", "terraform init -upgrade required", "precondition", 412, True, True,
          "The configuration asks for versions the lock file or installed modules do not have: run "
          "`terraform init -upgrade` and review the lock file change.", docs_url=_DOCS + "init",
          code_actions=[{"title": "Upgrade providers and modules within the configured constraints",
                         "command": ["{prog}", "init", "-upgrade", "-input=false"],
                         "applicability": "maybe_incorrect", "is_preferred": True}]),
    _rule("TERRAFORM_INIT_REQUIRED",
          r"^Error: (?:Inconsistent dependency lock file|Module not installed|Could not load plugin|Missing required "
          r"provider|Required plugins are not installed|Failed to load plugin schemas|Module source has changed|"
          r"Backend initialization required|Initialization required)|please run \"?terraform init",
          "terraform init required", "precondition", 412, True, True,
          "The working directory is not initialised for this configuration: run `terraform init -input=false`, "
          "then the command again.", docs_url=_DOCS + "init", code_actions=[_INIT]),
    _rule("TERRAFORM_BACKEND_CHANGED", r"^Error: Backend configuration changed",
          "Backend configuration changed", "precondition", 412, True, True,
          "The backend block changed since `terraform init`: re-initialise with `-reconfigure` (keep using the new "
          "backend as is) or `-migrate-state` (copy the state over).", docs_url=_DOCS + "init",
          code_actions=[{"title": "Re-initialise and copy the existing state to the new backend",
                         "command": ["{prog}", "init", "-migrate-state", "-input=false"],
                         "applicability": "maybe_incorrect"},
                        {"title": "Re-initialise against the new backend without migrating state",
                         "command": ["{prog}", "init", "-reconfigure", "-input=false"],
                         "applicability": "maybe_incorrect"}]),
    _rule("TERRAFORM_VARIABLE_REQUIRED",
          r"^Error: No value for required variable[\s\S]*?input variable \"(?P<name>[^\"]+)\" is not set",
          "No value for a required variable", "validation", 422, False, True,
          "Give variable '{name}' a value: `-var {name}=VALUE`, a `-var-file`, a terraform.tfvars file or "
          "TF_VAR_{name} in the environment.",
          detail="the root module variable \"{name}\" has no value and no default",
          docs_url="https://developer.hashicorp.com/terraform/language/values/variables",
          code_actions=[{"title": "Pass a value for {name} (replace <VALUE>)",
                         "command": ["{prog}", "{args...}", "-var", "{name}=<VALUE>"],
                         "applicability": "has_placeholders", "is_preferred": True}]),
    _rule("TERRAFORM_INVALID_VARIABLE",
          r"^Error: (?:Invalid value for (?:input )?variable|Value for undeclared variable|Invalid variable value)",
          "Invalid variable value", "validation", 422, False, True,
          "Fix the value given for the variable (its type and validation rules are in its `variable` block)."),
    _rule("TERRAFORM_APPROVAL_REQUIRED",
          r"^Error: (?:error asking for approval|Apply cancelled|Destroy cancelled)",
          "Approval required", "input_required", 428, True, True,
          "terraform asks a person to type 'yes' before it changes anything. Review a saved plan and apply exactly "
          "that plan (`terraform plan -out=tfplan`, then `terraform apply tfplan`), or pass -auto-approve.",
          detail="terraform {subcommand} stopped at its approval prompt: nobody can type 'yes' here",
          docs_url=_DOCS + "apply#automated-usage"),
    _rule("TERRAFORM_NO_CONFIGURATION", r"^Error: No configuration files",
          "No configuration files here", "precondition", 412, False, True,
          "Run terraform in the folder holding the .tf files, or point at it with `terraform -chdir=DIR ...`."),
    _rule("TERRAFORM_STALE_PLAN", r"^Error: Saved plan is stale",
          "Saved plan is stale", "conflict", 409, False, True,
          "The state changed after this plan was saved: make a new plan (`terraform plan -out=FILE`), review it, "
          "then apply that file."),
    _rule("TERRAFORM_SYNTAX_ERROR",
          r"^Error: (?:Invalid expression|Argument or block definition required|Unclosed configuration block|"
          r"Invalid block definition|Missing newline after argument|Invalid character|Invalid multi-line string|"
          r"Unterminated template string|Missing item separator|Missing key/value separator|Invalid argument name|"
          r"Missing attribute separator|Extra characters after interpolation expression|Unsupported operator|"
          r"Invalid single-argument block definition|Attribute redefined|Missing name for \w+|Invalid \w+ name)\b",
          "Configuration syntax error", "validation", 422, False, True,
          "Fix the HCL syntax at the reported file and line; `terraform validate` re-checks it."),
    _rule("TERRAFORM_INVALID_CONFIGURATION",
          r"^Error: (?:Reference to undeclared \w+|Unsupported (?:argument|attribute|block type)|Missing required "
          r"argument|Duplicate \w+(?: \w+)?|Invalid reference|Incorrect attribute value type|Invalid function "
          r"argument|Call to unknown function|Unsupported Terraform Core version|Invalid for_each argument|"
          r"Invalid count argument|Cycle|Invalid index|Invalid template interpolation value|Inconsistent "
          r"conditional result types|Module not found|Unreadable module directory|Invalid provider configuration)\b",
          "Invalid configuration", "validation", 422, False, True,
          "Fix the configuration at the reported file and line; `terraform validate` re-checks it."),
    _rule("TERRAFORM_USAGE",
          r"^Error: (?:Invalid (?:CLI )?argument|Too many command line arguments|Failed to parse command-line flags|"
          r"Invalid target address|Invalid -var option|Invalid resource address|Missing required argument "
          r"(?:-|for))", "Invalid command line", "usage", 400, False, True,
          "Fix the command-line arguments (see `terraform COMMAND -help`)."),
    _rule("TERRAFORM_REGISTRY_UNREACHABLE",
          r"^Error: (?:Failed to query available provider packages|Failed to install provider|Failed to resolve "
          r"provider packages|Failed to download module|Error accessing remote module registry|Failed to retrieve "
          r"available versions for module|Module not found|Invalid provider registry host)[\s\S]*?" + _NETWORK,
          "Provider or module registry unreachable", "network", 503, True, True,
          "terraform could not reach the provider/module registry named in the error: check network access and "
          "proxies (HTTPS_PROXY), or configure a provider mirror (provider_installation in the CLI config).",
          docs_url="https://developer.hashicorp.com/terraform/cli/config/config-file#provider-installation",
          code_actions=[{"title": "Retry the download", "command": ["{prog}", "init", "-input=false"],
                         "applicability": "machine_applicable"}]),
    _rule("TERRAFORM_PROVIDER_INSTALL_FAILED",
          r"^Error: (?:Failed to query available provider packages|Failed to install provider|Failed to resolve "
          r"provider packages|Incompatible provider version|Invalid provider registry host|Provider registry "
          r"\S+ does not have)", "Provider could not be installed", "dependency", 424, False, True,
          "Check the provider's source address and version constraint in required_providers (and the platform): "
          "the registry has no matching package."),
    _rule("TERRAFORM_PROVIDER_CREDENTIALS",
          r"^Error: [\s\S]*?(?:[Nn]o valid credential sources found|Unable to locate credentials|could not find "
          r"default credentials|application default credentials|InvalidClientTokenId|ExpiredToken|"
          r"UnrecognizedClientException|security token included in the request is (?:invalid|expired)|"
          r"please run 'az login'|401 Unauthorized|Unauthorized: )",
          "Provider credentials missing or invalid", "authentication", 401, True, True,
          "The provider could not authenticate: supply credentials the way the provider documents (environment "
          "variables such as AWS_PROFILE, a credentials file, `az login`, application default credentials)."),
    _rule("TERRAFORM_PROVIDER_ACCESS_DENIED",
          r"^Error: [\s\S]*?(?:AccessDenied|AuthorizationFailed|is not authorized to perform|does not have "
          r"(?:the )?permission|403 Forbidden|StatusCode=403|Error 403)",
          "Provider access denied", "authorization", 403, False, False,
          "The credentials work but lack permission for this action: grant the role/policy named in the error or "
          "use an identity that has it."),
    _rule("TERRAFORM_RATE_LIMITED",
          r"^Error: [\s\S]*?(?:Throttling|TooManyRequests|Rate exceeded|rate limit exceeded|StatusCode=429|"
          r"Error 429|429 Too Many Requests)",
          "Provider API rate limited", "rate_limit", 429, True, False,
          "The cloud API throttled terraform: wait and re-run (a lower `-parallelism=N` makes fewer calls at once)."),
    _rule("TERRAFORM_ERROR", r"^Error: (?P<summary>.+)", "terraform error", "dependency", 502, False, False,
          "Read the error's detail; provider errors during apply may have left some resources changed "
          "(`terraform plan` shows what remains)."),
    _rule("TERRAFORM_WARNING", r"^Warning: (?P<summary>.+)", "terraform warning", "validation", 422, False, True,
          "Not fatal; read the warning's detail.", severity="warning"),
]

TEXT_RULES: list[dict[str, Any]] = [
    _rule("TERRAFORM_UNKNOWN_COMMAND", r"^Terraform has no command named \"(?P<command>[^\"]+)\"",
          "Unknown terraform command", "usage", 400, False, True,
          "`{command}` is not a terraform command: see `terraform -help` for the list.",
          detail="terraform has no command named \"{command}\""),
    _rule("TERRAFORM_CRASH", r"^!+ (?:TERRAFORM|OPENTOFU) CRASH !+", "terraform crashed", "dependency", 502, False,
          False, "terraform itself crashed (a bug): note the crash log path above, check for a newer release and "
          "`terraform plan` before retrying an apply."),
    _rule("TERRAFORM_FMT_NEEDED", r"^(?P<file>[^\s:]+\.(?:tf|tfvars|tftest\.hcl))\s*$",
          "File is not in canonical format", "validation", 422, False, True,
          "Format the files with `terraform fmt` (it rewrites them in place).", subcommands=["fmt"], exit_codes=[3],
          detail="{file} is not formatted canonically",
          code_actions=[{"title": "Rewrite the files in canonical format", "command": ["{prog}", "fmt"],
                         "applicability": "machine_applicable", "is_preferred": True}]),
]
