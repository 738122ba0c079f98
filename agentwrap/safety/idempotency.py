"""placeholder"""
from typing import Any


def record_result(key: dict[str, Any], op_id: str, result: dict[str, Any], code: int) -> None:
    pass
