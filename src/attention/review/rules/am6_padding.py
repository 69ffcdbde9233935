"""AM6xx, padding rows: queries and rows of the scores with no key to attend to.

A padding mask on the query axis, padded queries left with no key, a row whose every key is masked.
"""

from __future__ import annotations

from attention.review.rules._examples import _ROW_BIAS
from attention.review.rules._rule import Rule

RULES: tuple[Rule, ...] = (
    Rule(
        "AM601",
        "padding-mask-on-the-query-axis",
        "error",
        (
            "sdpa.fully_masked_row",
            "mha.fully_masked_row.need_weights_true",
            "softmax.all_neg_inf_row",
        ),
        "A key-padding mask [B, S] is broadcast along the query axis ([B, 1, S, 1]) instead of "
        "the key axis: padded queries lose every key, real queries read the padding.",
        "`{subject}` puts the key-padding axis on the query axis",
        "Index so the key axis stays last: `mask[:, None, None, :]` ([B, 1, 1, S]).",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    allowed = (ids != pad_id)[:, None, :, None]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    allowed = (ids != pad_id)[:, None, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)\n",
    ),
    Rule(
        "AM602",
        "padded-queries-have-no-key",
        "warning",
        (
            "sdpa.fully_masked_row",
            "softmax.all_neg_inf_row",
            "mha.fully_masked_row.need_weights_true",
            "sdpa.fully_masked_row.grad",
        ),
        "A padding mask is applied on the query axis as well as the key axis: a padded query's "
        "row has no allowed key, and what the API returns for it (NaN, zeros) is not defined by "
        "the mask.",
        "`{subject}` leaves padded queries' rows with no allowed key",
        "Mask keys only (`real[:, None, :]`) and drop padded queries from the loss, or give each "
        "row at least one key.",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    real = ids != pad_id\n    allowed = real[:, :, None] & real[:, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None])\n",
        "import torch.nn.functional as F\n\n\ndef attend(q, k, v, ids, pad_id):\n"
        "    real = ids != pad_id\n    allowed = real[:, None, :]\n"
        "    return F.scaled_dot_product_attention(q, k, v, attn_mask=allowed[:, None])\n",
    ),
    Rule(
        "AM603",
        "softmax-of-a-row-with-no-allowed-key",
        "error",
        ("softmax.all_neg_inf_row",),
        "The mask is built with a query row that allows no key (every key forbidden, or -inf "
        "in the whole row) and a plain softmax reads it: 0/0, so that query's weights, its "
        "output and every gradient through them are NaN.",
        "`{subject}` reads a row with no allowed key: its weights are NaN",
        "Give every query at least one key, or flush the NaN rows after the softmax "
        "(`torch.where(w.isnan(), 0.0, w)`), or fill with `torch.finfo(dtype).min` instead of "
        "-inf (the row's weights are then uniform, not NaN).",
        _ROW_BIAS + "    return scores.softmax(dim=-1) @ v\n",
        _ROW_BIAS + "    weights = scores.softmax(dim=-1)\n"
        "    return torch.where(weights.isnan(), 0.0, weights) @ v\n",
    ),
)
