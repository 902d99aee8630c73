"""Search over the chunked knowledge: FAISS (dense) and BM25 (lexical), fused per question."""
