#!/usr/bin/env python3
"""The rank statistics of scripts/collect-ranker-data --validate (standard
library only): Spearman's rho with average ranks for ties, Kendall's tau-b,
pairwise accuracy, against values computed by hand.

  python3 test/integration/ranker_stats_test.py
"""
import importlib.machinery
import importlib.util
import math
import os
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("collect_ranker_data",
                                               os.path.join(ROOT, "scripts", "collect-ranker-data"))
_spec = importlib.util.spec_from_loader("collect_ranker_data", _loader)
stats = importlib.util.module_from_spec(_spec)
_loader.exec_module(stats)


class AverageRanks(unittest.TestCase):
    def test_ties_share_the_mean_position(self):
        self.assertEqual(stats.average_ranks([10, 20, 20, 30]), [1.0, 2.5, 2.5, 4.0])
        self.assertEqual(stats.average_ranks([3, 1, 2]), [3.0, 1.0, 2.0])
        self.assertEqual(stats.average_ranks([7, 7, 7]), [2.0, 2.0, 2.0])


class Spearman(unittest.TestCase):
    def test_monotone_orders(self):
        self.assertAlmostEqual(stats.spearman([1, 2, 3], [10, 20, 30]), 1.0)
        self.assertAlmostEqual(stats.spearman([1, 2, 3], [30, 20, 10]), -1.0)
        # only the ranks count
        self.assertAlmostEqual(stats.spearman([1, 2, 3, 4], [1, 10, 100, 1000]), 1.0)

    def test_tie_in_y(self):
        # ranks x 1..5, y (5, 6, 7, 8, 7) -> (1, 2, 3.5, 5, 3.5); deviations (-2,-1,0,1,2) and
        # (-2,-1,0.5,2,0.5): sum of products 8, squares 10 and 9.5 -> 8 / sqrt(95)
        self.assertAlmostEqual(stats.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 8 / math.sqrt(95), places=12)
        self.assertAlmostEqual(stats.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 0.8207826816681233, places=12)

    def test_tie_in_x(self):
        # ranks x (1, 2.5, 2.5, 4), y (1, 3, 2, 4): products 2.25 + 0 + 0 + 2.25 = 4.5, squares 4.5 and 5
        self.assertAlmostEqual(stats.spearman([1, 2, 2, 3], [1, 3, 2, 4]), 4.5 / math.sqrt(22.5), places=12)

    def test_constant_list_gives_zero(self):
        self.assertEqual(stats.spearman([1, 1, 1], [1, 2, 3]), 0.0)
        self.assertEqual(stats.spearman([4, 5, 6], [2, 2, 2]), 0.0)

    def test_needs_two_equal_lists(self):
        with self.assertRaises(ValueError):
            stats.spearman([1], [1])
        with self.assertRaises(ValueError):
            stats.spearman([1, 2], [1, 2, 3])


class KendallTauB(unittest.TestCase):
    def test_monotone_orders(self):
        self.assertAlmostEqual(stats.kendall_tau_b([1, 2, 3, 4], [2, 4, 6, 8]), 1.0)
        self.assertAlmostEqual(stats.kendall_tau_b([1, 2, 3, 4], [8, 6, 4, 2]), -1.0)

    def test_no_ties(self):
        # (1, 2, 3, 4) against (1, 3, 2, 4): 5 concordant pairs, 1 discordant, 6 pairs -> 4 / 6
        self.assertAlmostEqual(stats.kendall_tau_b([1, 2, 3, 4], [1, 3, 2, 4]), 4 / 6, places=12)

    def test_tie_in_y(self):
        # x 1..5, y (5, 6, 7, 8, 7): 8 concordant, 1 discordant (8 > 7), 1 pair tied in y, 10 pairs
        # -> (8 - 1) / sqrt((10 - 0) (10 - 1)) = 7 / sqrt(90)
        self.assertAlmostEqual(stats.kendall_tau_b([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 7 / math.sqrt(90), places=12)
        self.assertAlmostEqual(stats.kendall_tau_b([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), 0.7378647873726218, places=12)

    def test_tie_in_x(self):
        # x (1, 2, 2, 3), y (1, 3, 2, 4): 5 concordant, 0 discordant, 1 pair tied in x, 6 pairs
        # -> 5 / sqrt((6 - 1) (6 - 0)) = 5 / sqrt(30)
        self.assertAlmostEqual(stats.kendall_tau_b([1, 2, 2, 3], [1, 3, 2, 4]), 5 / math.sqrt(30), places=12)

    def test_ties_in_both(self):
        # x (1, 1, 2, 2), y (1, 2, 1, 2): one concordant, one discordant pair -> 0
        self.assertAlmostEqual(stats.kendall_tau_b([1, 1, 2, 2], [1, 2, 1, 2]), 0.0)
        # x (1, 1, 2, 3), y (1, 1, 2, 2): 4 concordant; tied x 1, tied y 2 of 6 pairs -> 4 / sqrt(5 * 4)
        self.assertAlmostEqual(stats.kendall_tau_b([1, 1, 2, 3], [1, 1, 2, 2]), 4 / math.sqrt(20), places=12)

    def test_constant_list_gives_zero(self):
        self.assertEqual(stats.kendall_tau_b([3, 3, 3], [1, 2, 3]), 0.0)


class PairwiseAccuracy(unittest.TestCase):
    def test_orders(self):
        self.assertEqual(stats.pairwise_accuracy([1, 2, 3], [10, 20, 30]), 1.0)
        self.assertEqual(stats.pairwise_accuracy([3, 2, 1], [10, 20, 30]), 0.0)
        self.assertEqual(stats.pairwise_accuracy([1, 1, 1], [10, 20, 30]), 0.5)

    def test_speeds_within_the_tie_ratio_are_no_pair(self):
        # 10 and 10.4 are within 5 %: only the pairs with 30 count, both ordered right
        self.assertEqual(stats.pairwise_accuracy([2, 1, 3], [10, 10.4, 30]), 1.0)
        self.assertEqual(stats.pairwise_accuracy([1, 2], [10, 10.4]), 0.5)


class MeanStd(unittest.TestCase):
    def test_sample_standard_deviation(self):
        mean, std = stats.mean_std([1.0, 2.0, 3.0, 4.0])
        self.assertAlmostEqual(mean, 2.5)
        self.assertAlmostEqual(std, math.sqrt(5 / 3))
        self.assertEqual(stats.mean_std([0.7]), (0.7, 0.0))


class FeatureSigns(unittest.TestCase):
    def test_every_feature_has_one_fixed_sign_or_is_excluded(self):
        for name in stats.FEATURE_ORDER:
            self.assertTrue((name in stats.FEATURE_SIGNS) != (name in stats.UNSCORED_FEATURES), name)
            if name in stats.FEATURE_SIGNS:
                self.assertIn(stats.FEATURE_SIGNS[name], (-1, 1), name)
        self.assertEqual(stats.FEATURE_SIGNS["coal"], 1)
        self.assertEqual(stats.FEATURE_SIGNS["bank"], -1)

    def test_unknown_value_is_neutral(self):
        rows = [{"features": {"coal": 1.0}, "features_unknown": []},
                {"features": {"coal": 0.0}, "features_unknown": ["coal"]},
                {"features": {"coal": 0.5}, "features_unknown": []}]
        self.assertEqual(stats.feature_scores(rows, "coal"), [1.0, 0.75, 0.5])
        rows = [{"features": {}, "extended": {"bank": 32}}, {"features": {}, "extended": None}]
        self.assertEqual(stats.feature_scores(rows, "bank"), [-32.0, -32.0])


if __name__ == "__main__":
    unittest.main()
