"""DistilBertForQuestionAnswering in plain PyTorch, module for module and
name for name as Hugging Face's modeling_distilbert.py (transformers is not a
Debian package): learned positions, GELU (erf), LayerNorm eps 1e-12, dropout
on embeddings / attention weights / FFN output / before qa_outputs, the loss
as the mean of the start and end cross entropies with out-of-window positions
ignored. Used by make_reference.py and scripts/bench-vs-pytorch."""
import math
import torch
from torch import nn


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, D, H, p):
        super().__init__()
        self.D, self.H = D, H
        self.q_lin, self.k_lin = nn.Linear(D, D), nn.Linear(D, D)
        self.v_lin, self.out_lin = nn.Linear(D, D), nn.Linear(D, D)
        self.dropout = nn.Dropout(p)

    def forward(self, x, mask):
        bs, q_len, _ = x.size()
        dph = self.D // self.H
        shape = lambda t: t.view(bs, -1, self.H, dph).transpose(1, 2)
        unshape = lambda t: t.transpose(1, 2).contiguous().view(bs, -1, self.H * dph)
        q, k, v = shape(self.q_lin(x)), shape(self.k_lin(x)), shape(self.v_lin(x))
        q = q / math.sqrt(dph)
        scores = torch.matmul(q, k.transpose(2, 3))
        m = (mask == 0).view(bs, 1, 1, q_len).expand_as(scores)
        scores = scores.masked_fill(m, torch.tensor(torch.finfo(scores.dtype).min))
        weights = self.dropout(nn.functional.softmax(scores, dim=-1))
        return self.out_lin(unshape(torch.matmul(weights, v)))


class FFN(nn.Module):
    def __init__(self, D, F, p):
        super().__init__()
        self.lin1, self.lin2 = nn.Linear(D, F), nn.Linear(F, D)
        self.dropout = nn.Dropout(p)

    def forward(self, x):
        return self.dropout(self.lin2(nn.functional.gelu(self.lin1(x))))   # erf form


class TransformerBlock(nn.Module):
    def __init__(self, D, H, F, p, pa):
        super().__init__()
        self.attention = MultiHeadSelfAttention(D, H, pa)
        self.sa_layer_norm = nn.LayerNorm(D, eps=1e-12)
        self.ffn = FFN(D, F, p)
        self.output_layer_norm = nn.LayerNorm(D, eps=1e-12)

    def forward(self, x, mask):
        sa = self.sa_layer_norm(self.attention(x, mask) + x)
        return self.output_layer_norm(self.ffn(sa) + sa)


class Transformer(nn.Module):
    def __init__(self, D, L, H, F, p, pa):
        super().__init__()
        self.layer = nn.ModuleList([TransformerBlock(D, H, F, p, pa) for _ in range(L)])


class Embeddings(nn.Module):
    def __init__(self, V, D, P, p):
        super().__init__()
        self.word_embeddings = nn.Embedding(V, D, padding_idx=0)
        self.position_embeddings = nn.Embedding(P, D)
        self.LayerNorm = nn.LayerNorm(D, eps=1e-12)
        self.dropout = nn.Dropout(p)

    def forward(self, ids):
        pos = torch.arange(ids.size(1)).unsqueeze(0).expand_as(ids)
        return self.dropout(self.LayerNorm(self.word_embeddings(ids) +
                                           self.position_embeddings(pos)))


class DistilBert(nn.Module):
    def __init__(self, V, D, L, H, F, P, p, pa):
        super().__init__()
        self.embeddings = Embeddings(V, D, P, p)
        self.transformer = Transformer(D, L, H, F, p, pa)


class DistilBertForQuestionAnswering(nn.Module):
    def __init__(self, V=30522, D=768, L=6, H=12, F=3072, P=512, dropout=0.1,
                 attention_dropout=0.1, qa_dropout=0.1):
        super().__init__()
        self.distilbert = DistilBert(V, D, L, H, F, P, dropout, attention_dropout)
        self.dropout = nn.Dropout(qa_dropout)
        self.qa_outputs = nn.Linear(D, 2)

    def forward(self, ids, mask, start_positions, end_positions):
        h = self.distilbert.embeddings(ids)
        for blk in self.distilbert.transformer.layer:
            h = blk(h, mask)
        logits = self.qa_outputs(self.dropout(h))
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits, end_logits = start_logits.squeeze(-1), end_logits.squeeze(-1)
        ignored = start_logits.size(1)
        sp, ep = start_positions.clamp(0, ignored), end_positions.clamp(0, ignored)
        ce = nn.CrossEntropyLoss(ignore_index=ignored)
        loss = (ce(start_logits.float(), sp) + ce(end_logits.float(), ep)) / 2
        return loss, start_logits, end_logits

    def init_hf(self, std=0.02):
        """Hugging Face's _init_weights."""
        for mod in self.modules():
            if isinstance(mod, nn.Linear):
                mod.weight.data.normal_(0.0, std)
                mod.bias.data.zero_()
            elif isinstance(mod, nn.Embedding):
                mod.weight.data.normal_(0.0, std)
                if mod.padding_idx is not None:
                    mod.weight.data[mod.padding_idx].zero_()
            elif isinstance(mod, nn.LayerNorm):
                mod.weight.data.fill_(1.0)
                mod.bias.data.zero_()
