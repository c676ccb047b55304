from payments.refund import refund_amount


def test_whole_rupees():
    assert refund_amount("20") == 2000


def test_partial():
    assert refund_amount("19.99") == 1999
