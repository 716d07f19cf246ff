check examples/seed001.cu --kernel bank_conflict_test --color always
