"""Refunds for UPI payments. Amounts are integer paise end to end."""
from dataclasses import dataclass

from payments.gateway import Gateway


@dataclass(frozen=True)
class Refund:
    payment_id: str
    amount_paise: int
    idempotency_key: str


def refund_amount(amount_rupees: str) -> int:
    """Parses a rupee amount like "19.99" into paise without going through float."""
    rupees, _, paise = amount_rupees.partition(".")
    if len(paise) > 2:
        raise ValueError(f"more than two decimals: {amount_rupees}")
    return int(rupees) * 100 + int(paise.ljust(2, "0") or 0)


def refund(gateway: Gateway, payment_id: str, amount_rupees: str, key: str) -> Refund:
    amount = refund_amount(amount_rupees)
    gateway.refund(payment_id, amount, idempotency_key=key)
    return Refund(payment_id, amount, key)
