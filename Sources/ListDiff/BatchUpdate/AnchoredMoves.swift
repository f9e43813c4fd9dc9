/// Turns the moves of one batch update into single moves, each at indices
/// valid when it is made, with no more moves than the batch has.
///
/// Each list (a section, or the list of sections) starts as its survivors:
/// the elements the batch does not delete, in order, some of which leave.
/// Elements that stay never move; each arriving element is placed right
/// after the survivor that precedes it in the final order (its *anchor*),
/// among the arrivals with the same anchor by final position. Once all moves
/// are made every list holds its final order, less the insertions.
///
/// The current index of an element is its rank among the present ones in a
/// fixed order of every survivor and arrival of the list, kept in a Fenwick
/// tree: O(*k* log *n*) for *k* moves.
@usableFromInline
struct AnchoredMoves {
    /// One list before and after its moves.
    @usableFromInline
    struct List {
        /// The number of survivors.
        @usableFromInline var survivorCount: Int
        /// The moves that land in this list, in final order, each with its
        /// anchor: the survivor that precedes it there, or -1.
        @usableFromInline var arrivals: [(move: Int, anchor: Int)] = []

        @inlinable
        init(survivorCount: Int) {
            self.survivorCount = survivorCount
        }
    }

    /// Where one move starts: a list and the survivor that leaves it.
    @usableFromInline
    struct Departure {
        @usableFromInline var list: Int
        @usableFromInline var survivor: Int

        @inlinable
        init(list: Int, survivor: Int) {
            self.list = list
            self.survivor = survivor
        }
    }

    /// The index each move leaves from and lands at, when made in the order
    /// of `departures`, in the lists that the moves' `Departure.list` and
    /// arrival lists name.
    @inlinable
    static func resolve(lists: [List], departures: [Departure]) -> [(from: Int, to: Int)] {
        var survivorPlaces = [[Int]]()
        var arrivalPlaces = [Int](repeating: 0, count: departures.count)
        var arrivalLists = [Int](repeating: 0, count: departures.count)
        var trees = [FenwickTree]()
        for (listIndex, list) in lists.enumerated() {
            // Fixed order: survivors by position, each arrival right after its anchor.
            var places = [Int](repeating: 0, count: list.survivorCount)
            var place = 0
            var survivor = 0
            for arrival in list.arrivals {
                while survivor <= arrival.anchor {
                    places[survivor] = place
                    place += 1
                    survivor += 1
                }
                arrivalPlaces[arrival.move] = place
                arrivalLists[arrival.move] = listIndex
                place += 1
            }
            while survivor < list.survivorCount {
                places[survivor] = place
                place += 1
                survivor += 1
            }
            var tree = FenwickTree(count: place)
            for survivorPlace in places { tree.add(1, at: survivorPlace) }
            survivorPlaces.append(places)
            trees.append(tree)
        }

        var result = [(from: Int, to: Int)]()
        result.reserveCapacity(departures.count)
        for (move, departure) in departures.enumerated() {
            let leaving = survivorPlaces[departure.list][departure.survivor]
            let from = trees[departure.list].count(before: leaving)
            trees[departure.list].add(-1, at: leaving)
            let arriving = arrivalPlaces[move]
            trees[arrivalLists[move]].add(1, at: arriving)
            result.append((from: from, to: trees[arrivalLists[move]].count(before: arriving)))
        }
        return result
    }
}
