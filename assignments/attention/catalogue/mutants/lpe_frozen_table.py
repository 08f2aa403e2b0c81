"""The position table is frozen, so it is never learned.

LearnedPositionalEmbedding whose embedding has requires_grad=False (as one would freeze
pretrained word vectors): a fixed random table, not a learned one."""
# item: LearnedPositionalEmbedding
# loses: embedding_is_the_only_parameter, gradients_reach_x_and_the_used_rows
_Base = LearnedPositionalEmbedding


class LearnedPositionalEmbedding(_Base):
    def __init__(self, max_len, d_model):
        super().__init__(max_len, d_model)
        self.embedding.weight.requires_grad_(False)
