"""A thin client for the payment gateway's refund endpoint."""
import os
import urllib.request


class Gateway:
    def __init__(self, base_url: str = "https://sandbox.gateway.example/v1") -> None:
        self.base_url = base_url
        self.api_key = os.environ.get("GATEWAY_API_KEY", "")

    def refund(self, payment_id: str, amount_paise: int, idempotency_key: str) -> None:
        if len(idempotency_key) > 64:
            raise ValueError("idempotency key longer than 64 chars")
        req = urllib.request.Request(
            f"{self.base_url}/payments/{payment_id}/refunds",
            data=f'{{"amount": {amount_paise}}}'.encode(),
            headers={"Idempotency-Key": idempotency_key, "Authorization": f"Bearer {self.api_key}"},
            method="POST",
        )
        urllib.request.urlopen(req, timeout=10)
