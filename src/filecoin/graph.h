/* The SDR parent graph of a PoRep (rust-fil-proofs' StackedBucketGraph):
 * 6 DRG parents a node (BucketGraph: distances sampled from buckets with
 * ChaCha8 seeded from the porep id and the node; the predecessor first
 * since API 1.1, last before) and 8 expander parents (a 3-round Feistel
 * permutation of node * 8 + i over 8 * nodes, its round function BLAKE2b
 * of the right half and a key, the keys from the porep id). Node 0's and
 * 1's DRG parents are all 0. */
#ifndef CUZK_FILECOIN_GRAPH_H
#define CUZK_FILECOIN_GRAPH_H

#include <stdint.h>

typedef struct fc_graph {
    uint64_t nodes;
    int api_1_0; /* API 1.0: the predecessor last, the Feistel result truncated to 32 bits */
    unsigned char drg_seed[28];
    uint64_t feistel_keys[4];
    uint64_t left_mask, right_mask;
    unsigned half_bits;
} fc_graph;

void fc_graph_init(fc_graph *g, uint64_t nodes, const unsigned char porep_id[32], int api_1_0);
void fc_graph_drg_parents(const fc_graph *g, uint64_t node, uint32_t out[6]);
void fc_graph_exp_parents(const fc_graph *g, uint64_t node, uint32_t out[8]);

#endif
